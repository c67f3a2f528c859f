#!/usr/bin/env python3
"""Cross-checks BleuHCI's packet codecs against Bumble's (Google's Python Bluetooth stack).

Reads JSON from stdin: {"items": {NAME: HEX}} where HEX is BleuHCI's encoding of the sample
NAME (HCI packets with their H4 indicator; L2CAP signalling commands, ATT and SMP PDUs bare).
For every NAME in the catalogue below, Bumble builds the same packet from its own classes.
Writes JSON to stdout: {"results": {NAME: {"bumble": HEX, "parse": "ok" | problem}}}, where
"bumble" is Bumble's encoding and "parse" says whether Bumble, parsing BleuHCI's bytes, got
the same class and field values as the packet it built.
"""
import dataclasses
import json
import sys

from bumble import att, hci, l2cap, smp
from bumble.core import UUID

A = hci.Address('C0:11:22:33:44:55')
B = hci.Address('D6:01:02:03:04:05')
Z = hci.Address('00:00:00:00:00:00')


def catalogue():
    h, l, a = hci, l2cap, att
    return {
        # HCI commands
        'cmd.reset': h.HCI_Reset_Command(),
        'cmd.setEventMask': h.HCI_Set_Event_Mask_Command(event_mask=bytes.fromhex('ffffffffffff3f20')),
        'cmd.leSetEventMask': h.HCI_LE_Set_Event_Mask_Command(le_event_mask=bytes.fromhex('ff1f0a0000000000')),
        'cmd.leReadBufferSize': h.HCI_LE_Read_Buffer_Size_Command(),
        'cmd.readBDADDR': h.HCI_Read_BD_ADDR_Command(),
        'cmd.readRSSI': h.HCI_Read_RSSI_Command(handle=0x0040),
        'cmd.disconnect': h.HCI_Disconnect_Command(connection_handle=0x0001, reason=0x13),
        'cmd.leSetAdvertisingParameters': h.HCI_LE_Set_Advertising_Parameters_Command(
            advertising_interval_min=0x0030, advertising_interval_max=0x0040, advertising_type=0,
            own_address_type=1, peer_address_type=0, peer_address=Z,
            advertising_channel_map=7, advertising_filter_policy=0),
        'cmd.leSetAdvertisingData': h.HCI_LE_Set_Advertising_Data_Command(advertising_data=bytes.fromhex('020106050962656c75')),
        'cmd.leSetScanResponseData': h.HCI_LE_Set_Scan_Response_Data_Command(scan_response_data=bytes.fromhex('03030f18')),
        'cmd.leSetAdvertisingEnable': h.HCI_LE_Set_Advertising_Enable_Command(advertising_enable=1),
        'cmd.leSetScanParameters': h.HCI_LE_Set_Scan_Parameters_Command(
            le_scan_type=1, le_scan_interval=0x0060, le_scan_window=0x0030, own_address_type=0, scanning_filter_policy=0),
        'cmd.leSetScanEnable': h.HCI_LE_Set_Scan_Enable_Command(le_scan_enable=1, filter_duplicates=1),
        'cmd.leCreateConnection': h.HCI_LE_Create_Connection_Command(
            le_scan_interval=0x0060, le_scan_window=0x0030, initiator_filter_policy=0, peer_address_type=1,
            peer_address=A, own_address_type=0, connection_interval_min=24, connection_interval_max=40,
            max_latency=0, supervision_timeout=500, min_ce_length=0, max_ce_length=0),
        'cmd.leCreateConnectionCancel': h.HCI_LE_Create_Connection_Cancel_Command(),
        'cmd.leConnectionUpdate': h.HCI_LE_Connection_Update_Command(
            connection_handle=0x0002, connection_interval_min=6, connection_interval_max=12, max_latency=1,
            supervision_timeout=300, min_ce_length=2, max_ce_length=4),
        'cmd.leSetDataLength': h.HCI_LE_Set_Data_Length_Command(connection_handle=0x0003, tx_octets=251, tx_time=2120),
        'cmd.leEnableEncryption': h.HCI_LE_Enable_Encryption_Command(
            connection_handle=0x0002, random_number=(0x0102030405060708).to_bytes(8, 'little'),
            encrypted_diversifier=0xBEEF, long_term_key=le('0123456789abcdeffedcba9876543210')),
        'cmd.leLongTermKeyRequestReply': h.HCI_LE_Long_Term_Key_Request_Reply_Command(
            connection_handle=0x0003, long_term_key=le('0123456789abcdeffedcba9876543210')),
        'cmd.leLongTermKeyRequestNegativeReply': h.HCI_LE_Long_Term_Key_Request_Negative_Reply_Command(connection_handle=0x0004),
        'cmd.leSetPHY': h.HCI_LE_Set_PHY_Command(connection_handle=0x0004, all_phys=0, tx_phys=2, rx_phys=2, phy_options=0),
        'cmd.leSetExtendedAdvertisingParameters': h.HCI_LE_Set_Extended_Advertising_Parameters_Command(
            advertising_handle=1, advertising_event_properties=0x13, primary_advertising_interval_min=0x0000A0,
            primary_advertising_interval_max=0x0100F0, primary_advertising_channel_map=7, own_address_type=1,
            peer_address_type=0, peer_address=Z, advertising_filter_policy=0, advertising_tx_power=127,
            primary_advertising_phy=1, secondary_advertising_max_skip=0, secondary_advertising_phy=2,
            advertising_sid=3, scan_request_notification_enable=0),
        'cmd.leSetExtendedAdvertisingData': h.HCI_LE_Set_Extended_Advertising_Data_Command(
            advertising_handle=1, operation=3, fragment_preference=1, advertising_data=bytes.fromhex('0201060303aafe')),
        'cmd.leSetExtendedAdvertisingEnable': h.HCI_LE_Set_Extended_Advertising_Enable_Command(
            enable=1, advertising_handles=[1, 2], durations=[0, 500], max_extended_advertising_events=[0, 9]),
        'cmd.leSetExtendedScanParameters': h.HCI_LE_Set_Extended_Scan_Parameters_Command(
            own_address_type=0, scanning_filter_policy=0, scanning_phys=0b101, scan_types=[1, 0],
            scan_intervals=[0x60, 0x90], scan_windows=[0x30, 0x48]),
        'cmd.leSetExtendedScanEnable': h.HCI_LE_Set_Extended_Scan_Enable_Command(
            enable=1, filter_duplicates=1, duration=0, period=0),
        'cmd.leExtendedCreateConnection': h.HCI_LE_Extended_Create_Connection_Command(
            initiator_filter_policy=0, own_address_type=0, peer_address_type=1, peer_address=A, initiating_phys=0b011,
            scan_intervals=[0x60, 0x60], scan_windows=[0x30, 0x30], connection_interval_mins=[24, 12],
            connection_interval_maxs=[40, 24], max_latencies=[0, 0], supervision_timeouts=[500, 400],
            min_ce_lengths=[0, 0], max_ce_lengths=[0, 0]),
        # HCI events
        'evt.commandCompleteBufferSize': h.HCI_Command_Complete_Event(
            num_hci_command_packets=1, command_opcode=h.HCI_LE_READ_BUFFER_SIZE_COMMAND,
            return_parameters=h.HCI_LE_Read_Buffer_Size_ReturnParameters(
                status=0, le_acl_data_packet_length=27, total_num_le_acl_data_packets=64)),
        'evt.commandStatus': h.HCI_Command_Status_Event(
            status=0, num_hci_command_packets=1, command_opcode=h.HCI_LE_CREATE_CONNECTION_COMMAND),
        'evt.disconnectionComplete': h.HCI_Disconnection_Complete_Event(status=0, connection_handle=0x0001, reason=0x16),
        'evt.encryptionChange': h.HCI_Encryption_Change_Event(status=0, connection_handle=0x0001, encryption_enabled=1),
        'evt.encryptionKeyRefreshComplete': h.HCI_Encryption_Key_Refresh_Complete_Event(status=0, connection_handle=0x0002),
        'evt.leLongTermKeyRequest': h.HCI_LE_Long_Term_Key_Request_Event(
            connection_handle=0x0003, random_number=(0x0102030405060708).to_bytes(8, 'little'), encryption_diversifier=0xBEEF),
        'evt.numberOfCompletedPackets': h.HCI_Number_Of_Completed_Packets_Event(
            connection_handles=[0x0001, 0x0002], num_completed_packets=[3, 1]),
        'evt.leConnectionComplete': h.HCI_LE_Connection_Complete_Event(
            status=0, connection_handle=0x0001, role=0, peer_address_type=1, peer_address=A, connection_interval=24,
            peripheral_latency=0, supervision_timeout=500, central_clock_accuracy=0),
        'evt.leEnhancedConnectionComplete': h.HCI_LE_Enhanced_Connection_Complete_Event(
            status=0, connection_handle=0x0002, role=1, peer_address_type=0, peer_address=B,
            local_resolvable_private_address=Z, peer_resolvable_private_address=Z, connection_interval=40,
            peripheral_latency=0, supervision_timeout=400, central_clock_accuracy=1),
        'evt.leAdvertisingReport': h.HCI_LE_Advertising_Report_Event(reports=[
            h.HCI_LE_Advertising_Report_Event.Report(event_type=0, address_type=1, address=A,
                                                     data=bytes.fromhex('020106'), rssi=-60),
            h.HCI_LE_Advertising_Report_Event.Report(event_type=4, address_type=0, address=B,
                                                     data=bytes.fromhex('05096162636465'), rssi=-72)]),
        'evt.leExtendedAdvertisingReport': h.HCI_LE_Extended_Advertising_Report_Event(reports=[
            h.HCI_LE_Extended_Advertising_Report_Event.Report(
                event_type=0x13, address_type=1, address=A, primary_phy=1, secondary_phy=0, advertising_sid=0xFF,
                tx_power=127, rssi=-55, periodic_advertising_interval=0, direct_address_type=0, direct_address=Z,
                data=bytes.fromhex('0201060303aafe'))]),
        'evt.leConnectionUpdateComplete': h.HCI_LE_Connection_Update_Complete_Event(
            status=0, connection_handle=0x0001, connection_interval=12, peripheral_latency=0, supervision_timeout=300),
        'evt.leDataLengthChange': h.HCI_LE_Data_Length_Change_Event(
            connection_handle=0x0001, max_tx_octets=251, max_tx_time=2120, max_rx_octets=251, max_rx_time=2120),
        'evt.lePHYUpdateComplete': h.HCI_LE_PHY_Update_Complete_Event(status=0, connection_handle=1, tx_phy=2, rx_phy=2),
        'evt.leAdvertisingSetTerminated': h.HCI_LE_Advertising_Set_Terminated_Event(
            status=0, advertising_handle=1, connection_handle=0x0005, num_completed_extended_advertising_events=0),
        # ACL
        'acl.first': h.HCI_AclDataPacket(connection_handle=0x0001, pb_flag=2, bc_flag=0, data_total_length=7,
                                         data=bytes.fromhex('030004000a0300')),
        'acl.continuing': h.HCI_AclDataPacket(connection_handle=0x0EFF, pb_flag=1, bc_flag=0, data_total_length=2,
                                              data=bytes.fromhex('abcd')),
        # L2CAP LE signalling
        'sig.commandReject': l.L2CAP_Command_Reject(identifier=7, reason=0, data=b''),
        'sig.disconnectionRequest': l.L2CAP_Disconnection_Request(identifier=2, destination_cid=0x0041, source_cid=0x0040),
        'sig.disconnectionResponse': l.L2CAP_Disconnection_Response(identifier=2, destination_cid=0x0041, source_cid=0x0040),
        'sig.connectionParameterUpdateRequest': l.L2CAP_Connection_Parameter_Update_Request(
            identifier=1, interval_min=6, interval_max=12, latency=0, timeout=300),
        'sig.connectionParameterUpdateResponse': l.L2CAP_Connection_Parameter_Update_Response(identifier=1, result=1),
        'sig.leCreditBasedConnectionRequest': l.L2CAP_LE_Credit_Based_Connection_Request(
            identifier=3, le_psm=0x0080, source_cid=0x0040, mtu=512, mps=247, initial_credits=10),
        'sig.leCreditBasedConnectionResponse': l.L2CAP_LE_Credit_Based_Connection_Response(
            identifier=3, destination_cid=0x0041, mtu=256, mps=100, initial_credits=5, result=0),
        'sig.flowControlCredit': l.L2CAP_LE_Flow_Control_Credit(identifier=4, cid=0x0040, credits=12),
        # ATT
        'att.errorResponse': a.ATT_Error_Response(request_opcode_in_error=0x0A, attribute_handle_in_error=0x0012, error_code=0x02),
        'att.exchangeMTURequest': a.ATT_Exchange_MTU_Request(client_rx_mtu=517),
        'att.exchangeMTUResponse': a.ATT_Exchange_MTU_Response(server_rx_mtu=247),
        'att.findInformationRequest': a.ATT_Find_Information_Request(starting_handle=1, ending_handle=0xFFFF),
        'att.findInformationResponse16': a.ATT_Find_Information_Response(
            format=1, information_data=bytes.fromhex('0300022904000229')),
        'att.findInformationResponse128': a.ATT_Find_Information_Response(
            format=2, information_data=bytes.fromhex('0500') + bytes(range(16))),
        'att.findByTypeValueRequest': a.ATT_Find_By_Type_Value_Request(
            starting_handle=1, ending_handle=0xFFFF, attribute_type=UUID.from_16_bits(0x2800), attribute_value=bytes.fromhex('0f18')),
        'att.findByTypeValueResponse': a.ATT_Find_By_Type_Value_Response(handles_information_list=bytes.fromhex('01000500'+'06000900')),
        'att.readByTypeRequest': a.ATT_Read_By_Type_Request(starting_handle=1, ending_handle=0x0010, attribute_type=UUID.from_16_bits(0x2803)),
        'att.readByTypeRequest128': a.ATT_Read_By_Type_Request(
            starting_handle=1, ending_handle=0x0010, attribute_type=UUID.from_bytes(bytes(range(16)))),
        'att.readByTypeResponse': a.ATT_Read_By_Type_Response(length=7, attribute_data_list=bytes.fromhex('0200020300192a' + '0400120500382a')),
        'att.readRequest': a.ATT_Read_Request(attribute_handle=0x0003),
        'att.readResponse': a.ATT_Read_Response(attribute_value=bytes.fromhex('626c6575')),
        'att.readBlobRequest': a.ATT_Read_Blob_Request(attribute_handle=0x0003, value_offset=22),
        'att.readBlobResponse': a.ATT_Read_Blob_Response(part_attribute_value=bytes.fromhex('0102')),
        'att.readMultipleRequest': a.ATT_Read_Multiple_Request(set_of_handles=[3, 5, 7]),
        'att.readMultipleResponse': a.ATT_Read_Multiple_Response(set_of_values=bytes.fromhex('6401ff')),
        'att.readByGroupTypeRequest': a.ATT_Read_By_Group_Type_Request(starting_handle=1, ending_handle=0xFFFF, attribute_group_type=UUID.from_16_bits(0x2800)),
        'att.readByGroupTypeResponse': a.ATT_Read_By_Group_Type_Response(length=6, attribute_data_list=bytes.fromhex('010005000018' + '060009000118')),
        'att.writeRequest': a.ATT_Write_Request(attribute_handle=0x0009, attribute_value=bytes.fromhex('0100')),
        'att.writeResponse': a.ATT_Write_Response(),
        'att.writeCommand': a.ATT_Write_Command(attribute_handle=0x0009, attribute_value=bytes.fromhex('deadbeef')),
        'att.prepareWriteRequest': a.ATT_Prepare_Write_Request(attribute_handle=0x0009, value_offset=18, part_attribute_value=bytes.fromhex('0a0b')),
        'att.prepareWriteResponse': a.ATT_Prepare_Write_Response(attribute_handle=0x0009, value_offset=18, part_attribute_value=bytes.fromhex('0a0b')),
        'att.executeWriteRequest': a.ATT_Execute_Write_Request(flags=1),
        'att.executeWriteResponse': a.ATT_Execute_Write_Response(),
        'att.handleValueNotification': a.ATT_Handle_Value_Notification(attribute_handle=0x000B, attribute_value=bytes.fromhex('55aa')),
        'att.handleValueIndication': a.ATT_Handle_Value_Indication(attribute_handle=0x000B, attribute_value=bytes.fromhex('55aa')),
        'att.handleValueConfirmation': a.ATT_Handle_Value_Confirmation(),
        'att.readMultipleVariableRequest': a.ATT_Read_Multiple_Variable_Request(set_of_handles=[3, 0x0105]),
        'att.readMultipleVariableResponse': a.ATT_Read_Multiple_Variable_Response(
            length_value_tuple_list=[(2, bytes.fromhex('0102')), (0, b''), (3, bytes.fromhex('616263'))]),
        **smp_catalogue(),
    }


def le(text):
    """A value the Swift side writes most significant octet first, as it travels: reversed."""
    return bytes.fromhex(text)[::-1]


def smp_catalogue():
    s = smp
    return {
        'smp.pairingRequest': s.SMP_Pairing_Request_Command(
            io_capability=4, oob_data_flag=0, auth_req=0x0D, maximum_encryption_key_size=16,
            initiator_key_distribution=0x03, responder_key_distribution=0x07),
        'smp.pairingResponse': s.SMP_Pairing_Response_Command(
            io_capability=1, oob_data_flag=1, auth_req=0x09, maximum_encryption_key_size=10,
            initiator_key_distribution=0x02, responder_key_distribution=0x03),
        'smp.pairingConfirm': s.SMP_Pairing_Confirm_Command(confirm_value=le('00112233445566778899aabbccddeeff')),
        'smp.pairingRandom': s.SMP_Pairing_Random_Command(random_value=le('0f0e0d0c0b0a09080706050403020100')),
        'smp.pairingFailed': s.SMP_Pairing_Failed_Command(reason=0x04),
        'smp.encryptionInformation': s.SMP_Encryption_Information_Command(long_term_key=le('6986791169d7cd23980522b594750a38')),
        'smp.centralIdentification': s.SMP_Master_Identification_Command(ediv=0x1234, rand=le('0102030405060708')),
        'smp.identityInformation': s.SMP_Identity_Information_Command(identity_resolving_key=le('ec0234a357c8ad05341010a60a397d9b')),
        'smp.identityAddressInformation': s.SMP_Identity_Address_Information_Command(addr_type=1, bd_addr=A),
        'smp.signingInformation': s.SMP_Signing_Information_Command(signature_key=le('2d9ae102e76dc91ce8d3a9e280b16399')),
        'smp.securityRequest': s.SMP_Security_Request_Command(auth_req=0x05),
        'smp.pairingPublicKey': s.SMP_Pairing_Public_Key_Command(
            public_key_x=le('20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6'),
            public_key_y=le('dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b')),
        'smp.pairingDHKeyCheck': s.SMP_Pairing_DHKey_Check_Command(dhkey_check=le('e3c473989cd0e8c5d26c0b09da958f61')),
        'smp.keypressNotification': s.SMP_Pairing_Keypress_Notification_Command(notification_type=1),
    }


def normalize(value):
    if isinstance(value, hci.Address):
        return bytes(value).hex()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, UUID):
        return bytes(value.to_bytes()).hex() if hasattr(value, 'to_bytes') else str(value)
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: normalize(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.init and not f.name.startswith('_')}
    if isinstance(value, int):
        return int(value)
    return str(value)


def encode(name, packet):
    if name.startswith(('cmd.', 'evt.', 'acl.')):
        return bytes(packet)  # with the H4 indicator
    return bytes(packet)


def parse(name, data):
    if name.startswith(('cmd.', 'evt.', 'acl.')):
        return hci.HCI_Packet.from_bytes(data)
    if name.startswith('sig.'):
        return l2cap.L2CAP_Control_Frame.from_bytes(data)
    if name.startswith('smp.'):
        return smp.SMP_Command.from_bytes(data)
    return att.ATT_PDU.from_bytes(data)


def main():
    request = json.load(sys.stdin)
    results = {}
    for name, packet in catalogue().items():
        entry = {'bumble': encode(name, packet).hex()}
        ours = request['items'].get(name)
        if ours is None:
            entry['parse'] = 'missing from the Swift side'
        else:
            try:
                parsed = parse(name, bytes.fromhex(ours))
                if type(parsed) is not type(packet):
                    entry['parse'] = f'Bumble read {type(parsed).__name__}, expected {type(packet).__name__}'
                elif normalize(parsed) != normalize(packet):
                    entry['parse'] = f'fields differ: ours {normalize(parsed)} / built {normalize(packet)}'
                else:
                    entry['parse'] = 'ok'
            except Exception as error:  # noqa: BLE001 - every failure is a finding
                entry['parse'] = f'Bumble could not parse: {error!r}'
        results[name] = entry
    json.dump({'results': results}, sys.stdout)


if __name__ == '__main__':
    main()
